# core/local.mk: core API (init/attach, AM entry points, handlers, progress,
# exit) and the transport-independent AM protocol (core/am).
libgasnet_sources += \
	core/am/wire.c
