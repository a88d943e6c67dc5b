import { lazy, useEffect } from 'react';
import { BrowserRouter, Route, Routes, useNavigate } from 'react-router';
import { bindNavigator, CHANGE_PASSWORD_PATH, LOGIN_PATH, RTTY_PATH } from '../routes/navigation.js';
import { currentLanguage, loadAllStrings } from '../i18n/console-i18n.js';
import { AdminArea } from '../shell/admin-area.js';
import { CONFIRM_PAGE_PATH } from '../shell/apply-confirm-actions.js';

const LoginPage = lazy(() => import('../pages/login/login-page.js'));
const ModPwdPage = lazy(() => import('../pages/modpwd/modpwd-page.js'));
// The browser terminal speaks the system section's words; xterm.js loads with it only.
const RttyPage = lazy(() => Promise.all([import('../pages/rtty/rtty-page.js'), loadAllStrings(currentLanguage())]).then(([page]) => page));
// The confirmation speaks the maintenance section's words: it waits for every string.
const ConfirmPage = lazy(() => Promise.all([import('../pages/system-maintain/confirm-page.js'), loadAllStrings(currentLanguage())]).then(([page]) => page));

/** Lets code outside components (the API client on a 401) change the page. */
function NavigatorBinding() {
  const navigate = useNavigate();
  useEffect(() => bindNavigator((to, options) => void navigate(to, options)), [navigate]);
  return null;
}

/**
 * The public pages of the console (sign-in, password change, the confirmation of a change
 * from another address, and the browser terminal, which checks its session itself), and everything else behind the session. Admin
 * routes are built from the server's menu inside AdminArea, so a page this account or
 * device does not have is simply not routed. (Declarative routing: the data router's
 * loaders and actions are not used and would double the router's size.)
 */
export function ConsoleRouter() {
  return (
    <BrowserRouter>
      <NavigatorBinding />
      <Routes>
        <Route path={LOGIN_PATH} element={<LoginPage />} />
        <Route path={CHANGE_PASSWORD_PATH} element={<ModPwdPage />} />
        <Route path={CONFIRM_PAGE_PATH} element={<ConfirmPage />} />
        <Route path={RTTY_PATH} element={<RttyPage />} />
        <Route path="*" element={<AdminArea />} />
      </Routes>
    </BrowserRouter>
  );
}
