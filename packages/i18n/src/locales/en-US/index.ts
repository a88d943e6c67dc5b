import { bundle } from '../../locale-bundle.js';
import common from './common.json';
import validation from './validation.json';
import menu from './menu.json';
import msg from './msg.json';
import login from './login.json';
import dashboard from './dashboard.json';
import adminUser from './adminUser.json';
import entity from './entity.json';
import portal from './portal.json';

/** One import per namespace file; a new namespace adds one line here in each language. */
export default bundle({ common, validation, menu, msg, login, dashboard, adminUser, entity, portal });
