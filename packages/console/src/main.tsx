// Entry point: bundled by the server to /console/assets/app.js and rendered into #app.
import { render } from 'preact';
import { App } from './app.js';
import { interceptLinks } from './router.js';

interceptLinks();
const root = document.getElementById('app');
if (root) render(<App />, root);
