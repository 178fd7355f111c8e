"""The whole-market screen's infrastructure: the panel reader and the figures across symbols."""
