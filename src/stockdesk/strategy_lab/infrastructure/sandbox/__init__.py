"""Strategy execution in a limited worker process (see process_sandbox.py)."""
