# Stand-in for OpenWrt's package.mk: BuildPackage turns the package's definitions into three
# targets (prepare, compile, install into IPKG_ROOT); `print VAR=<name>` prints a variable.
PKG_BUILD_DIR ?= $(BUILD_DIR)/$(PKG_NAME)-$(PKG_VERSION)
IPKG_ROOT ?= $(TOPDIR)/ipkg-root

define BuildPackage
prepare:
	$$(Build/Prepare)
compile: prepare
	$$(Build/Compile)
install:
	$$(call Package/$(1)/install,$$(IPKG_ROOT))
endef

print:
	$(info $($(VAR)))
	@:
