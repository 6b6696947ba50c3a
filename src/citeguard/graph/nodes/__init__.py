"""Graph nodes: each a thin translation from state to a library call and back.

A node that needs models, the index or the draft store is built by ``make_<node>(resources)``
and takes them from those resources only; what several nodes share is in ``common``.
"""
