"""Forgetting by description: which memories a request means.

The planner reads a request once, gathers candidates through a search port the engine
implements, and judges them in named stages; it imports neither the engine nor the store.
"""
