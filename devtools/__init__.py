"""Tools for development only (not shipped in the image): the local OIDC provider that
`tavolo run` starts so a newcomer can log in without an account anywhere."""
