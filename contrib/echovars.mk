# contrib/echovars.mk: prints VAR=value for each variable of VARS as the
# makefile fragment FRAGMENT defines it (make-expanded); used to write the
# pkg-config files from the fragments so that both always agree.
#   make -s -f echovars.mk FRAGMENT=ibv-seq.mak VARS="GASNET_CC GASNET_LIBS"
include $(FRAGMENT)
echovars:
	@$(foreach v,$(VARS),echo '$(v)=$(strip $($(v)))';)
.PHONY: echovars
