# other/config/local.mk: what a library was built for, visible to the
# linker and in the binary (link-time configuration check symbols and ident
# strings; include/gasnet_linkcheck.h explains the check), and the sources
# of the tools-only libraries libgasnet_tools-{seq,par}.a: gasnet_tools.h's
# implementation ($(gasnet_tools_sources), other/local.mk) and the
# infrastructure it uses, no conduit.
libgasnet_sources += other/config/linkcheck.c
gasnet_tools_lib_sources = $(gasnet_tools_sources) \
	other/param/param.c other/param/param-parse.c other/param/param-table.c \
	other/log/log.c other/util/sysinfo.c
