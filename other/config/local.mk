# other/config/local.mk: what a library was built for, visible to the
# linker and in the binary: link-time configuration check symbols and
# ident strings (include/gasnet_linkcheck.h explains the check).
libgasnet_sources += other/config/linkcheck.c
gasnet_tools_config_sources = other/config/tools-linkcheck.c
