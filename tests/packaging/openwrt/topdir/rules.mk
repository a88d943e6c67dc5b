# Stand-in for OpenWrt's rules.mk: only the variables the portico Makefile uses, pointing
# into folders the test chooses. Not a build system: no toolchain, no target.
INCLUDE_DIR := $(TOPDIR)/include
BUILD_DIR ?= $(TOPDIR)/build
STAGING_DIR ?= $(TOPDIR)/staging
STAGING_DIR_HOSTPKG ?= $(TOPDIR)/staging-host
ARCH ?= aarch64
INSTALL_DIR := install -d -m0755
INSTALL_BIN := install -m0755
INSTALL_CONF := install -m0600
INSTALL_DATA := install -m0644
CP := cp -fpR
MAKE_VARS :=
