"""Research ports: the experts' agents and the choices agent, each implemented in infrastructure."""
