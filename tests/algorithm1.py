"""The shape of the answer graph: Algorithm 1, plus the answer from the evidence scorer's
passage before a refusal, or first when the scorer is sure of it (shared by the drawing tests)."""

NODES = {
    "retrieve",
    "sufficiency_check",
    "generate",
    "validate",
    "regenerate",
    "answer_from_passage",
    "refuse",
}
# Plain edges for the fixed order, conditional edges for the two decisions.
PLAIN_EDGES = {
    ("__start__", "retrieve"),
    ("retrieve", "sufficiency_check"),
    ("generate", "validate"),
    ("regenerate", "validate"),
    ("answer_from_passage", "validate"),
    ("refuse", "__end__"),
}
CONDITIONAL_EDGES = {
    ("sufficiency_check", "generate"),
    ("sufficiency_check", "refuse"),
    ("sufficiency_check", "answer_from_passage"),
    ("validate", "__end__"),
    ("validate", "regenerate"),
    ("validate", "refuse"),
    ("validate", "answer_from_passage"),
    ("validate", "generate"),
}
