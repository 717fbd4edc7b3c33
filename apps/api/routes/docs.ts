import path from 'node:path';
import { RequestHandler, Router } from 'express';
import { bind } from '../bind';
import { sendProblem } from '../errors';
import { operations } from './docs.schemas';

/**
 * GET /docs: the interactive API reference (Swagger UI) for GET /openapi.json. Its files come from
 * the swagger-ui-dist package folder, served here (no CDN), and the page's Content-Security-Policy
 * allows only this origin: no inline script or style, no other host (images also as data: URIs,
 * which the stylesheet's icons are). "Authorize" takes a bearer token, which
 * "Try it out" sends with its requests to this same server.
 */
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // swagger-ui.css draws its icons as inline data: SVGs; they load nothing from anywhere.
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Outreach Signal Service API</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  deepLinking: true,
  displayOperationId: true,
  displayRequestDuration: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  tryItOutEnabled: false,
  persistAuthorization: false,
  validatorUrl: null,
});
`;

const secured: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
};

export function docsRoutes(): Router {
  const r = Router();
  const serve = bind(r, operations);
  serve('getApiReference', secured, (_req, res) => {
    res.type('text/html; charset=utf-8').send(PAGE);
  });
  // The page's script and the package's files: static assets, not API operations.
  r.use('/docs', secured, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const name = req.path.slice(1);
    if (name === 'init.js') return void res.type('text/javascript; charset=utf-8').setHeader('Cache-Control', 'no-cache').send(INIT);
    const type = ASSETS[name];
    if (!type) return sendProblem(res, 'NOT_FOUND', `No file ${req.path} in the API reference`);
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type(type).sendFile(path.join(SWAGGER_UI, name));
  });
  return r;
}
