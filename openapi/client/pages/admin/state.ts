/**
 * The console's shared state: the signed-in client, the date range every view reads,
 * and the directory of names (users, groups, tools, classes) that turns the ids the API
 * answers into something a person reads.
 *
 * The admin API answers names beside the ids of its rows (a tool's `group_name`, an
 * assignment's `class_name` and `tool_name`, a member's `user_name`, feedback's
 * `user_name`), and the views show those. The directory is what is left: the lists the
 * pickers of the forms offer (groups, tools, classes) and the names of the usage
 * figures' keys until a usage group carries its own `name` (which then wins). It is
 * loaded once after sign-in and again after any change made through the console, so a
 * view never asks the API for a name one row at a time. People are found with the API's
 * search (`GET /v1/admin/users?q=`), not in this directory.
 */
import type { ParleyClient, Schemas } from "../../src/index";

export type User = Schemas["User"];
export type Group = Schemas["Group"];
export type Tool = Schemas["Tool"];
export type Class = Schemas["Class"];

export const admin = {
  client: undefined as unknown as ParleyClient,
};

/** Lists fetched page by page, up to `max` items: enough for names and pickers. */
async function all<T>(
  page: (cursor?: string) => Promise<{ data?: { items: T[]; next_cursor?: string } }>,
  max = 2000,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const { data } = await page(cursor);
    if (!data) break;
    items.push(...data.items);
    cursor = data.next_cursor;
  } while (cursor && items.length < max);
  return items;
}

export const directory = {
  users: [] as User[],
  groups: [] as Group[],
  tools: [] as Tool[],
  classes: [] as Class[],
};

/** (Re)loads the directory; views call it after they change one of its lists. */
export async function loadDirectory(): Promise<void> {
  const c = admin.client;
  const query = (cursor?: string) => ({ params: { query: { limit: 100, cursor } } });
  const [users, groups, tools, classes] = await Promise.all([
    all((cursor) => c.GET("/v1/admin/users", query(cursor))),
    all((cursor) => c.GET("/v1/admin/groups", query(cursor))),
    all((cursor) => c.GET("/v1/admin/tools", query(cursor))),
    all((cursor) => c.GET("/v1/admin/classes", query(cursor))),
  ]);
  Object.assign(directory, { users, groups, tools, classes });
}

export type Kind = "user" | "group" | "tool" | "class";

/** The name of an id of `kind`, or `undefined` when the directory does not know it. */
export function nameOf(kind: Kind, id: string | undefined): string | undefined {
  if (!id) return undefined;
  const list: { id: string; name: string }[] =
    kind === "user" ? directory.users : kind === "group" ? directory.groups : kind === "tool" ? directory.tools : directory.classes;
  return list.find((x) => x.id === id)?.name;
}

/** The date range of every view, as the API's `from` / `to` query parameters. */
export interface Range {
  from: string;
  to: string;
  preset: string;
}

export const PRESETS: Record<string, number> = { "24h": 24, "7d": 24 * 7, "30d": 24 * 30 };

/** A preset range ending now. */
export function presetRange(preset: string): Range {
  const hours = PRESETS[preset] ?? PRESETS["30d"];
  const to = new Date(Date.now() + 60_000);
  const from = new Date(to.getTime() - hours * 3_600_000);
  return { from: from.toISOString(), to: to.toISOString(), preset };
}

export let range: Range = presetRange("30d");

export function setRange(next: Range): void {
  range = next;
}
