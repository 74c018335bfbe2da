"""lethe inside other agent frameworks (each an optional extra): thin faces over `Lethe`."""
