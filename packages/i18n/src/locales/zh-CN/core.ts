import { bundle } from '../../locale-bundle.js';
import common from './common.json';
import validation from './validation.json';
import msg from './msg.json';
import login from './login.json';
/**
 * What the console's first paint needs: the public pages (sign-in, password change), the shell's
 * common words, and the daemon's messages and field errors. The rest (index.ts) follows in the
 * background and is waited for behind the sign-in.
 */
export default bundle({ common, validation, msg, login });
