"""Installing statewright the way users do: wheels built here, installed offline into fresh
virtual environments, next to the tools a project may already pin."""
