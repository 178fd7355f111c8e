"""Research DTOs: expert inputs, snapshots (numbers computed in code) and expert results."""
