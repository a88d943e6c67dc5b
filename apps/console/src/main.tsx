import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/mantine-styles.js';
import './styles/console.css';
import { ConsoleApp } from './app/console-app.js';
import { currentLanguage, i18nReady, loadAllStrings } from './i18n/console-i18n.js';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
// The first paint already speaks the chosen language; a failed language load still renders
// (with keys) rather than leaving a blank page.
void i18nReady.finally(() => {
  createRoot(container).render(
    <StrictMode>
      <ConsoleApp />
    </StrictMode>,
  );
  // The sections' strings follow the first paint, so the sign-in is not kept waiting for them.
  void loadAllStrings(currentLanguage()).catch(() => undefined);
});
