/**
 * Views and the hash routes that show them (`#/users`, `#/usage?group_by=model`, …),
 * the navigation drawer (a column on a laptop, a menu behind a button at 400 px), the
 * date range above every view, and the live refresh of the views that follow changing
 * figures (every 10 s while the tab is visible, with the time of the last update).
 *
 * A view registers itself with `view(...)`; the navigation lists views in registration
 * order under their section, so a view that lands later (budgets) is one more module
 * imported by `admin.ts`.
 */
import { byId, el } from "../common";
import { PRESETS, presetRange, range, setRange } from "./state";
import { fromLocalInput, toLocalInput } from "./ui";

export interface View {
  path: string;
  title: string;
  section: "Manage" | "Read";
  /** Draws the view for the route's query parameters. */
  render: (params: URLSearchParams) => Promise<HTMLElement>;
  /** Redrawn every `LIVE_MS` while visible. */
  live?: boolean;
  /** Reads the date range (the range control is shown). */
  ranged?: boolean;
}

const views: View[] = [];
const LIVE_MS = 10_000;
let timer: number | undefined;
let drawing = 0;

export function view(v: View): void {
  views.push(v);
}

/** Goes to `path` with `params` (a new history entry; the hash change redraws). */
export function go(path: string, params: Record<string, string | undefined> = {}): void {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => !!e[1])).toString();
  const hash = `#/${path}${query ? `?${query}` : ""}`;
  if (window.location.hash === hash) void draw();
  else window.location.hash = hash;
}

function current(): { v: View; params: URLSearchParams } {
  const [path, query] = window.location.hash.replace(/^#\/?/, "").split("?");
  const v = views.find((x) => x.path === path) ?? views.find((x) => x.path === "usage") ?? views[0];
  return { v, params: new URLSearchParams(query ?? "") };
}

function showNav(open: boolean): void {
  document.body.dataset.nav = open ? "open" : "closed";
  byId("nav-toggle").setAttribute("aria-expanded", String(open));
}

function navigation(): HTMLElement {
  const sections = ["Manage", "Read"] as const;
  return el(
    "nav",
    { id: "nav", "aria-label": "Console" },
    ...sections.map((s) =>
      el(
        "div",
        { class: "nav-section" },
        el("h2", {}, s),
        el("ul", {}, ...views.filter((v) => v.section === s).map((v) => el("li", {}, el("a", { href: `#/${v.path}`, "data-path": v.path }, v.title)))),
      ),
    ),
  );
}

function rangeControl(): HTMLElement {
  const from = el("input", { type: "datetime-local", id: "range-from", "aria-label": "From" });
  const to = el("input", { type: "datetime-local", id: "range-to", "aria-label": "To" });
  const presets = Object.keys(PRESETS).map((p) => {
    const b = el("button", { type: "button", class: "preset", "data-preset": p }, p.replace("h", " h").replace("d", " d"));
    b.addEventListener("click", () => {
      setRange(presetRange(p));
      void draw();
    });
    return b;
  });
  const apply = () => {
    const f = fromLocalInput(from.value);
    const t = fromLocalInput(to.value);
    if (f && t && f < t) {
      setRange({ from: f, to: t, preset: "custom" });
      void draw();
    }
  };
  from.addEventListener("change", apply);
  to.addEventListener("change", apply);
  return el("div", { id: "range", class: "range", role: "group", "aria-label": "Date range" }, ...presets, el("label", {}, "From ", from), el("label", {}, "to ", to));
}

function syncRange(): void {
  byId<HTMLInputElement>("range-from").value = toLocalInput(range.from);
  byId<HTMLInputElement>("range-to").value = toLocalInput(range.to);
  for (const b of document.querySelectorAll<HTMLButtonElement>("#range .preset")) b.setAttribute("aria-pressed", String(b.dataset.preset === range.preset));
}

/** Draws the current route's view; a newer draw wins over one still loading. */
export async function draw(quiet = false): Promise<void> {
  const { v, params } = current();
  const mine = ++drawing;
  // A preset range slides with the clock, so a redraw reads up to now.
  if (range.preset !== "custom") setRange(presetRange(range.preset));
  document.body.dataset.view = v.path;
  if (!quiet) document.body.dataset.ready = "false";
  byId("range").hidden = !v.ranged;
  syncRange();
  for (const a of document.querySelectorAll<HTMLAnchorElement>("#nav a")) a.toggleAttribute("aria-current", a.dataset.path === v.path);
  byId("view-title").textContent = v.title;
  let content: HTMLElement;
  try {
    content = await v.render(params);
  } catch (err) {
    content = el("p", { class: "problem", role: "alert" }, `This view failed: ${String(err)}`);
  }
  if (mine !== drawing) return;
  byId("view").replaceChildren(content);
  byId("updated").textContent = `Updated ${new Date().toLocaleTimeString()}`;
  document.body.dataset.ready = "true";
  window.clearTimeout(timer);
  if (v.live) {
    timer = window.setTimeout(() => {
      if (document.visibilityState === "visible") void draw(true);
    }, LIVE_MS);
  }
}

/** Builds the console's frame (navigation, range) and draws the route. */
export function startRouter(): void {
  byId("nav-slot").replaceChildren(navigation());
  byId("range-slot").replaceChildren(rangeControl());
  byId("nav-toggle").addEventListener("click", () => showNav(document.body.dataset.nav !== "open"));
  byId("refresh").addEventListener("click", () => void draw());
  window.addEventListener("hashchange", () => {
    showNav(false);
    void draw();
  });
  // Back in view after a while: the live figures are stale, read them again.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && current().v.live) void draw(true);
  });
  showNav(false);
  void draw();
}
