import { ANSWERS_KEY } from "./session";
import { WIZARD_ID } from "./state";

/**
 * A reload of a step's address (`/?step=3`) gets the server's page, which shows step 1: the
 * answers are in this tab only (decision 0025). So, while the page's scripts load, the wizard's
 * card stays empty rather than show step 1 and then jump to the right step. This inline script,
 * first in the head, marks the document when the address names a later step and the tab has
 * answers, and unmarks it as soon as the hydrated wizard shows their step (the first change of a
 * `value` attribute: the progress bar's, from 1); the stylesheet hides the wizard's content on a
 * marked page, for a few seconds at most should the scripts never run. It removes itself, so
 * React finds the head it rendered. The same for every visitor (the page's CSP allows it by its
 * hash), and written here rather than by React: it costs the page's scripts nothing.
 */
const RESTORING = `<script>try{var d=document.documentElement;if(/[?&]step=[2-5]/.test(location.search)&&!/[?&]draft=/.test(location.search)&&JSON.parse(sessionStorage.getItem(${JSON.stringify(ANSWERS_KEY)}))){d.setAttribute("data-restoring","");new MutationObserver(function(_,o){o.disconnect();d.removeAttribute("data-restoring")}).observe(d,{subtree:true,attributeFilter:["value"]})}}catch(e){}document.currentScript.remove()</script>`;

/** A page with the wizard gets the script (entry.server.tsx); any other page is left as it is. */
export const withRestoring = (html: string) => (html.includes(`id="${WIZARD_ID}"`) ? html.replace("<head>", `<head>${RESTORING}`) : html);
