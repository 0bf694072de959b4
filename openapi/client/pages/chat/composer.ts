/**
 * The composer's choices beyond the text: files to attach (uploaded at once through
 * `POST /v1/files`, then named by the message's `attachments`) and the model picker,
 * shown when the deployment serves more than one model (`GET /v1/models`; a message may
 * name any of them). The picker starts on the session's model (its tool's, from the
 * session's configuration) or the deployment's default.
 */
import type { Schemas } from "../../src/index";
import { byId, el, problemText } from "../common";
import { icon } from "./icons";
import { chat, notice, type Session } from "./state";
import { iconButton } from "./views";

type Upload = Schemas["File"];

let attached: Upload[] = [];
let models: Schemas["Model"][] = [];

const picker = () => byId<HTMLSelectElement>("model");

function drawAttachments(): void {
  const list = byId("attachments");
  list.hidden = attached.length === 0;
  list.replaceChildren(
    ...attached.map((file) =>
      el(
        "li",
        { class: "attachment", "data-file-id": file.id, title: `${file.content_type}, ${file.size} bytes` },
        icon("paperclip"),
        file.name,
        iconButton("remove", `Remove ${file.name}`, "close", () => {
          attached = attached.filter((f) => f.id !== file.id);
          drawAttachments();
        }),
      ),
    ),
  );
}

async function upload(file: File): Promise<void> {
  const status = byId("upload-status");
  status.textContent = `Uploading ${file.name}…`;
  const { data, error, response } = await chat.client.POST("/v1/files", {
    // The schema types the part as a string (binary); the browser sends the File.
    body: { file: file as unknown as string },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append("file", body.file as unknown as Blob, file.name);
      return form;
    },
  });
  status.textContent = "";
  if (!data) {
    notice(`${file.name}: ${problemText(error, response.status)}`);
    return;
  }
  attached.push(data);
  drawAttachments();
}

/** The files to send with the next message; the composer lets go of them. */
export function takeAttachments(): Upload[] {
  const files = attached;
  attached = [];
  drawAttachments();
  return files;
}

/** The model picked, when the picker is shown. */
export function composerModel(): string | undefined {
  return models.length > 1 ? picker().value || undefined : undefined;
}

/** Sets the picker to the session's model (or the default one). */
export function pickFor(session: Session | null): void {
  if (models.length < 2) return;
  const own = session?.config.model;
  picker().value = models.some((m) => m.id === own) ? (own as string) : (models.find((m) => m.default)?.id ?? models[0].id);
}

/** Puts text back into the input (a message the API refused). */
export function restoreInput(text: string): void {
  const input = byId<HTMLTextAreaElement>("input");
  if (!input.value) input.value = text;
}

export async function initComposer(): Promise<void> {
  const { data } = await chat.client.GET("/v1/models");
  models = data?.items ?? [];
  const select = picker();
  select.replaceChildren(...models.map((m) => el("option", { value: m.id }, m.default ? `${m.id} (default)` : m.id)));
  byId("model-label").hidden = models.length < 2;
  const input = byId<HTMLInputElement>("file");
  byId("attach").replaceChildren(icon("paperclip"));
  byId("attach").addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    const files = [...(input.files ?? [])];
    input.value = "";
    for (const file of files) await upload(file);
  });
  drawAttachments();
}
