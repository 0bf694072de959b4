/**
 * The admin console (`GET /admin`), on the generated client, for admins only (another
 * token is turned away with the API's 403). Hash routes pick the view:
 *
 * - Manage: `admin/users.ts` (users, their role, permissions and tokens),
 *   `admin/groups.ts` (the group tree and members), `admin/classes.ts` (classes and
 *   enrolments), `admin/assignments.ts`, `admin/tools.ts` (the definition editor with
 *   the server's validation errors inline).
 * - Read, over the date range above the view: `admin/usage.ts` (by day, model, user and
 *   tool, with drill-down), `admin/modules.ts` (block rates and categories; a session's
 *   audit trail), `admin/feedback.ts`, and `admin/live.ts` (prompts, stuck prompts with
 *   cancel, provider breakers; redrawn every 10 s).
 *
 * `admin/router.ts` holds the navigation and the range, `admin/state.ts` the client and
 * the names of users, groups, tools and classes, `admin/ui.ts` the building blocks. A
 * view that lands later (budgets) is one more module imported here. Below 720 px the
 * navigation folds behind a button; colours follow the system's light or dark setting.
 */
import { signIn } from "./common";
import "./admin/users";
import "./admin/groups";
import "./admin/classes";
import "./admin/assignments";
import "./admin/tools";
import "./admin/budgets";
import "./admin/usage";
import "./admin/modules";
import "./admin/feedback";
import "./admin/live";
import { startRouter } from "./admin/router";
import { admin, loadDirectory } from "./admin/state";

signIn(
  async (candidate) => {
    const { response } = await candidate.GET("/v1/admin/providers");
    if (response.ok) return null;
    if (response.status === 403) return "This page is for administrators.";
    if (response.status === 401) return "That token is not valid.";
    return `Sign-in failed (${response.status}).`;
  },
  (client) => {
    admin.client = client;
    void loadDirectory().then(startRouter);
  },
);
