# tests/install/local.mk: tests of the installed products and of the
# runtime-style build from the `make dist` tarball (run by the harness:
# manifest line "install" and manifest.d/build.manifest).
EXTRA_DIST += \
	tests/install/common.sh \
	tests/install/tools-client.c \
	tests/install/names-client.c \
	tests/install/names-lite.c \
	tests/install/runtime-client.cc \
	tests/install/runtime-lite.cc \
	tests/install/check-runtime-build.sh \
	tests/install/check-legion-build.sh \
	tests/install/legion-wrapper.c \
	tests/install/legion-host.c \
	tests/integration/manifest.d/build.manifest
