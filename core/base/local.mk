# core/base/local.mk: the job state and the transport interfaces shared by
# every layer from the transports up (core/base/README).
libgasnet_sources += \
	core/base/job.c \
	core/base/transport.c
noinst_HEADERS += core/base/job.h core/base/transport.h
EXTRA_DIST += core/base/README
