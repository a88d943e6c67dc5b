/** @jsxImportSource preact */
import { render } from 'preact';
import { PortalApp } from './portal-app.js';
import './portal.css';

render(<PortalApp />, document.getElementById('portal')!);
