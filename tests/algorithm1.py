"""The shape of the answer graph that Algorithm 1 prescribes (shared by the drawing tests)."""

NODES = {"retrieve", "sufficiency_check", "generate", "validate", "regenerate", "refuse"}
# Plain edges for the fixed order, conditional edges for the two decisions.
PLAIN_EDGES = {
    ("__start__", "retrieve"),
    ("retrieve", "sufficiency_check"),
    ("generate", "validate"),
    ("regenerate", "validate"),
    ("refuse", "__end__"),
}
CONDITIONAL_EDGES = {
    ("sufficiency_check", "generate"),
    ("sufficiency_check", "refuse"),
    ("validate", "__end__"),
    ("validate", "regenerate"),
    ("validate", "refuse"),
}
