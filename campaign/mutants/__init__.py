"""The bug-finding matrix (`tcmcheck mutants`): `matrix` runs a campaign per known-bug switch,
`bias` reshapes its cases so that each switch has something to show in."""
