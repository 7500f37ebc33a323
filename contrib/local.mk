# contrib/local.mk: installed makefile fragments, pkg-config files, headers.
