#!/usr/bin/env node
// pppd's ip-up-script for the PPPoE WANs: the link carries IP (see ppp-hook-record.mjs).
import { recordPppEvent } from './ppp-hook-record.mjs';

recordPppEvent('up');
