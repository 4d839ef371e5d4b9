// First: zod's settings must hold before any imported module builds a schema.
import './configure-zod.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Root } from './app/root.js';
import './styles/app.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html must contain #root');
createRoot(container).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
