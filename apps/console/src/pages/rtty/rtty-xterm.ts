// xterm.js with its stylesheet, in a chunk of their own that only /rtty loads.
import '../../vendor/xterm/xterm.css';

export { FitAddon, Terminal } from '../../vendor/xterm/xterm.js';
