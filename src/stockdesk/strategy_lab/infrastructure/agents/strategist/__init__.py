"""The strategist: picks momentum-strategy parameters as JSON."""
