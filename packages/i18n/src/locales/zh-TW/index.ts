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
import networkInterface from './networkInterface.json';
import dhcpServer from './dhcpServer.json';
import dhcpStatic from './dhcpStatic.json';
import staticRoute from './staticRoute.json';
import arpBind from './arpBind.json';
import arpAuth from './arpAuth.json';
import vlan from './vlan.json';
import multiWan from './multiWan.json';
import portAttribute from './portAttribute.json';
import iptv from './iptv.json';
import vpnClient from './vpnClient.json';
import maintain from './maintain.json';

/** One import per namespace file; a new namespace adds one line here in each language. */
export default bundle({ common, validation, menu, msg, login, dashboard, adminUser, entity, portal, networkInterface, dhcpServer, dhcpStatic, staticRoute, arpBind, arpAuth, vlan, multiWan, portAttribute, iptv, vpnClient, maintain });
