# Stand-ins for OpenWrt's procd.sh and functions.sh, sourced before an init script to run its
# start_service, reload_service and service_triggers off a device. Each procd call is recorded
# as one line of tab-separated words in $PROCD_LOG; config_load reads a UCI file of
# $UCI_CONFIG_DIR (config/option/list lines only) into CONFIG_<section>_<option> variables.

procd_record() {
	printf '%s' "$1" >> "$PROCD_LOG"
	shift
	for word in "$@"; do printf '\t%s' "$word" >> "$PROCD_LOG"; done
	printf '\n' >> "$PROCD_LOG"
}

procd_open_instance() { procd_record procd_open_instance "$@"; }
procd_close_instance() { procd_record procd_close_instance "$@"; }
procd_set_param() { procd_record procd_set_param "$@"; }
procd_append_param() { procd_record procd_append_param "$@"; }
procd_add_reload_trigger() { procd_record procd_add_reload_trigger "$@"; }
start() { procd_record start "$@"; }

config_load() {
	procd_record config_load "$@"
	section=
	while read -r keyword name value; do
		name=${name#\'}; name=${name%\'}
		value=${value#\'}; value=${value%\'}
		case "$keyword" in
		config) section=$value ;;
		option) eval "CONFIG_${section}_${name}=\$value" ;;
		list)
			eval "previous=\${CONFIG_${section}_${name}:-}"
			eval "CONFIG_${section}_${name}=\${previous:+\$previous }\$value"
			;;
		esac
	done < "$UCI_CONFIG_DIR/$1"
}

# config_get <variable> <section> <option> [default]
config_get() {
	eval "value=\${CONFIG_${2}_${3}-\$4}"
	eval "$1=\$value"
}

config_get_bool() {
	config_get "$@"
	eval "value=\$$1"
	case "$value" in
	1|on|true|yes|enabled) eval "$1=1" ;;
	*) eval "$1=0" ;;
	esac
}
