# other/config/local.mk: what a library was built for, visible to the
# linker and in the binary (link-time configuration check symbols and ident
# strings; include/gasnet_linkcheck.h explains the check), and the sources
# of the tools-only libraries libgasnet_tools-{seq,par}.a: gasnet_tools.h's
# implementation and the infrastructure it uses, no conduit.  (Once
# other/local.mk names the tools implementation $(gasnet_tools_sources),
# the two other/tools files below become that variable.)
libgasnet_sources += other/config/linkcheck.c
gasnet_tools_lib_sources = other/tools/tools-sys.c other/tools/tools-env.c \
	other/param/param.c other/param/param-parse.c other/param/param-table.c \
	other/log/log.c other/util/sysinfo.c
