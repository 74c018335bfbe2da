"""Forgetting: protection, plans with their precision guard, and pending confirmations."""
