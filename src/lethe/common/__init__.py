"""What every layer shares: ids and input checks, filters, expiry, a conversation's context,
rank fusion, writing systems, thread counts, progress and local hosts. Imports nothing of
lethe but `model`, `errors` and `config`, so any layer may import it."""
