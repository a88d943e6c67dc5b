#!/usr/bin/env node
// pppd's ip-down-script for the PPPoE WANs: the link no longer carries IP (see ppp-hook-record.mjs).
import { recordPppEvent } from './ppp-hook-record.mjs';

recordPppEvent('down');
