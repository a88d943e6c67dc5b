# Runtime packages of portico, each listed once. The Makefile's DEPENDS is PORTICO_REQUIRED;
# tests/packaging/openwrt-feed.test.ts renders a configuration with the daemon's openwrt driver
# and checks that every init script it reloads, every command it runs and every netifd protocol
# it writes is brought by a package below (an optional reload by an optional package).
#
# PORTICO_USES.<package> says what the daemon uses of it:
#   service:<init script>   reloaded after the files it reads change
#   command:<program>       run by the daemon (argv[0])
#   proto:<name>            a netifd protocol handler named in /etc/config/network
#   kernel:<module>         a kernel module the rendered ruleset or tc script needs
#   file:<path>             files the daemon reads

# Required: without one of these the daemon does not start, or its base configuration (LAN,
# WANs by DHCP, static or PPPoE, DHCP server, firewall, hotspot, Smart QoS) fails to apply.
PORTICO_REQUIRED := \
	node \
	base-files \
	netifd \
	busybox \
	zoneinfo-all \
	ip-full \
	firewall4 \
	nftables-json \
	kmod-nft-core \
	kmod-nft-nat \
	dnsmasq-full \
	ppp-mod-pppoe \
	tc-full \
	kmod-sched-core \
	kmod-sched-bpf

# Optional: each serves one feature; without it the daemon keeps writing that feature's
# configuration and skips its reload (ServiceReload.optional), or netifd reports the
# interface's protocol as unavailable. Installed by hand: opkg install / apk add.
PORTICO_OPTIONAL := \
	mwan3 \
	igmpproxy \
	strongswan-minimal \
	strongswan-swanctl \
	xl2tpd \
	ppp-mod-pppol2tp \
	rp-pppoe-server \
	pptpd \
	ppp-mod-pptp \
	ppp-mod-radius \
	proto-bonding \
	openvpn-openssl \
	curl

# Node 20 or later runs the daemon bundle and better-sqlite3's addon.
PORTICO_USES.node := command:/usr/bin/node
# /etc/config/network; `ifup` reconnects a WAN; static, DHCP and address-less interfaces.
PORTICO_USES.netifd := service:/etc/init.d/network command:ifup proto:static proto:dhcp proto:dhcpv6 proto:none
# /etc/config/system: the zone and the host name (its reload sets both).
PORTICO_USES.base-files := service:/etc/init.d/system
# The connection-tracking timeouts are loaded with `sysctl -p`; WAN health probes ping;
# BusyBox ntpd is the NTP client and the LAN's NTP server (UCI system.ntp).
PORTICO_USES.busybox := command:sysctl command:ping service:/etc/init.d/sysntpd
# The time zones the console offers, checked on write; /etc/config/system carries each one's
# POSIX TZ string, read from its file here (musl has no tz database of its own).
PORTICO_USES.zoneinfo-all := file:/usr/share/zoneinfo
# BusyBox's ip has no `-j`: the hotspot reads neighbours as JSON.
PORTICO_USES.ip-full := command:ip
# fw4: /etc/config/firewall and the includes under /usr/share/nftables.d.
PORTICO_USES.firewall4 := service:/etc/init.d/firewall
# The hotspot reads its sets with `nft -j`; fw4 itself depends on this flavour.
PORTICO_USES.nftables-json := command:nft
PORTICO_USES.kmod-nft-core := kernel:nf_tables kernel:nft_ct kernel:nft_limit kernel:nft_connlimit
# Port mappings, NAT rules and the hotspot's portal redirect.
PORTICO_USES.kmod-nft-nat := kernel:nft_nat kernel:nft_redir kernel:nft_masq
# The stock dnsmasq has no nftset support: Smart QoS domain rules and routes need it.
PORTICO_USES.dnsmasq-full := service:/etc/init.d/dnsmasq
PORTICO_USES.ppp-mod-pppoe := proto:pppoe
# Smart QoS: HTB trees on each WAN (upload) and on the LAN side (download: the openwrt driver
# always shapes download there, so no IFB device, ingress qdisc or ctinfo action is needed),
# classified by a classic-BPF filter; tc-tiny has no BPF support.
PORTICO_USES.tc-full := command:tc
PORTICO_USES.kmod-sched-core := kernel:sch_htb
PORTICO_USES.kmod-sched-bpf := kernel:cls_bpf

# Multi-WAN policies and Smart QoS port/domain routes.
PORTICO_USES.mwan3 := service:/etc/init.d/mwan3
# IPTV in IGMP-proxy mode.
PORTICO_USES.igmpproxy := service:/etc/init.d/igmpproxy
# IPsec VPN clients and the IPsec server (both swanctl fragments of the one charon): charon
# with its PSK and kernel plugins, loaded through swanctl's init script; `swanctl
# --reload-settings` when the server's strongswan.d fragment (aggressive-mode consent) changes.
PORTICO_USES.strongswan-minimal := command:/usr/lib/ipsec/charon
PORTICO_USES.strongswan-swanctl := service:/etc/init.d/swanctl command:/usr/sbin/swanctl
# L2TP VPN clients (xl2tpd's netifd handler) and the L2TP server (xl2tpd's init script reads
# /etc/xl2tpd/xl2tpd.conf), over the kernel's PPPoL2TP.
PORTICO_USES.xl2tpd := proto:l2tp service:/etc/init.d/xl2tpd
PORTICO_USES.ppp-mod-pppol2tp := kernel:pppol2tp
# The PPPoE server: its init script reads the pppoe_server sections of /etc/config/pppoe.
PORTICO_USES.rp-pppoe-server := service:/etc/init.d/pppoe-server
# The PPTP server: the feed's own init script (portico-pptpd) runs pptpd on the rendered
# pptpd.conf; the package's init script is not used (it replaces /etc/ppp/chap-secrets).
PORTICO_USES.pptpd := command:/usr/sbin/pptpd
# PPTP VPN clients.
PORTICO_USES.ppp-mod-pptp := proto:pptp
# The PPP servers' RADIUS accounts (`authway` radius): the options load pppd's `radius.so`.
PORTICO_USES.ppp-mod-radius := file:/usr/lib/pppd
# A LAN of role `bond` (802.3ad).
PORTICO_USES.proto-bonding := proto:bonding
# The OpenVPN server: /etc/config/openvpn points OpenWrt's init script at the rendered
# server.conf, which OpenVPN's own parser checks first (so without the package, enabling the
# server fails the apply with the checker's error instead of doing nothing).
PORTICO_USES.openvpn-openssl := service:/etc/init.d/openvpn command:openvpn
# E-mail notices: curl is the SMTP client. Its libcurl must be built with SMTP
# (CONFIG_LIBCURL_SMTP=y, off in OpenWrt's default configuration) and a TLS library; without it a
# notice waits in the queue and the test message shows curl's error.
PORTICO_USES.curl := command:curl

# 802.1Q VLANs (VLAN interfaces, tagged WANs, IPTV) need no package: OpenWrt kernels have
# CONFIG_VLAN_8021Q built in. OpenVPN clients are not rendered by the openwrt driver; the
# OpenVPN server is (openvpn-openssl above).

PORTICO_DEPENDS := $(addprefix +,$(PORTICO_REQUIRED))
