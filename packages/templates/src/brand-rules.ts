// What a project's brand must meet to render legibly (the text contrast, an https logo), without
// the catalogue and the renderer: `mailsvc admin projects update` checks a brand with these, and a
// CLI process should not load every template to do it.
export { isHttpsUrl } from './blocks/url.js';
export { contrastRatio, MIN_TEXT_CONTRAST } from './render/contrast.js';
