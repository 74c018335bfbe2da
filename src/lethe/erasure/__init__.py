"""Proof of erasure: what a purge scans for, the byte scan of lethe's files, and the signed
receipt a person keeps. The engine (`engine/proof.py`) runs them after a purge's cleanup."""
