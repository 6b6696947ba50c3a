"""Models trained in this project: the evidence scorer and the support verifier.

Both are small cross-encoders (the bundled MiniLM's encoder with a one-logit head) that
read two texts together. They need no chat model, so they work with any generator.
"""
