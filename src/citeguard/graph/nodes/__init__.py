"""Graph nodes: each a thin translation from state to a library call and back."""
