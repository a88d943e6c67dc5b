import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/mantine-styles.js';
import './styles/console.css';
import { ConsoleApp } from './app/console-app.js';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <ConsoleApp />
  </StrictMode>,
);
