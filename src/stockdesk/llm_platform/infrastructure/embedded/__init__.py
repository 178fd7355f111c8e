"""The embedded local model: pinned weights assembled from registry packages, served by llama.cpp."""
