/* global window, SwaggerUIBundle */
// Starts the API reference viewer on the OpenAPI document of this server (a file, since the page's
// Content-Security-Policy refuses inline scripts).
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/docs/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
