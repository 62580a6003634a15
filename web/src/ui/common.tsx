// Small shared pieces: inputs bound to strings, key/value rows, modal, toasts, messages with
// `code` in them, the Ctrl/Cmd+Enter shortcut.
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ErrorKind } from "../../../src/core/errors.ts";
import { refusalKind } from "../api.ts";
import { type MessageKey, translatesCoreWords, useT } from "../i18n/i18n.ts";
import { inlineCodeParts } from "../model/inline-code.ts";
import { fromRows, type KvRow, toRows } from "../model/kv.ts";

export function inputValue(event: Event): string {
  return (event.currentTarget as HTMLInputElement | HTMLTextAreaElement).value;
}

export function TextInput(props: {
  value: string;
  onChange: (value: string) => void;
  placeholder?: string | undefined;
  list?: string | undefined;
  id?: string | undefined;
  testId?: string | undefined;
  mono?: boolean | undefined;
  invalid?: boolean | undefined;
  /** The id of the element that says what is wrong with the value. */
  describedBy?: string | undefined;
  ariaLabel?: string | undefined;
  autoFocus?: boolean | undefined;
}): JSX.Element {
  const input = useRef<HTMLInputElement>(null);
  // focus on mount (the attribute alone does nothing for an element added after page load)
  useEffect(() => {
    if (props.autoFocus) input.current?.focus();
  }, []);
  return (
    <input
      ref={input}
      type="text"
      id={props.id}
      class={`input${props.mono ? " mono" : ""}${props.invalid ? " invalid" : ""}`}
      value={props.value}
      placeholder={props.placeholder}
      list={props.list}
      data-testid={props.testId}
      aria-label={props.ariaLabel}
      aria-invalid={props.invalid ? true : undefined}
      aria-describedby={props.describedBy}
      spellcheck={false}
      onInput={(event) => props.onChange(inputValue(event))}
    />
  );
}

export function TextArea(props: {
  value: string;
  onChange: (value: string) => void;
  placeholder?: string | undefined;
  rows?: number | undefined;
  testId?: string | undefined;
  invalid?: boolean | undefined;
  /** The id of the element that says what is wrong with the value. */
  describedBy?: string | undefined;
  ariaLabel?: string | undefined;
}): JSX.Element {
  return (
    <textarea
      class={`input mono${props.invalid ? " invalid" : ""}`}
      value={props.value}
      rows={props.rows ?? 4}
      placeholder={props.placeholder}
      data-testid={props.testId}
      aria-label={props.ariaLabel}
      aria-invalid={props.invalid ? true : undefined}
      aria-describedby={props.describedBy}
      spellcheck={false}
      onInput={(event) => props.onChange(inputValue(event))}
    />
  );
}

/** A JSON object edited as key/value rows; rows with an empty key are kept while being typed. */
export function KvEditor(props: {
  value: Record<string, unknown>;
  onChange: (value: Record<string, unknown>) => void;
  keyPlaceholder?: string;
  valuePlaceholder?: string;
  addLabel?: string;
  testId?: string;
}): JSX.Element {
  const t = useT();
  const [rows, setRows] = useState<KvRow[]>(() => toRows(props.value));
  const external = JSON.stringify(props.value);
  useEffect(() => {
    if (JSON.stringify(fromRows(rows, props.value)) !== external) setRows(toRows(props.value));
  }, [external]);
  const commit = (next: KvRow[]) => {
    setRows(next);
    props.onChange(fromRows(next, props.value));
  };
  return (
    <div class="kv" data-testid={props.testId}>
      {rows.map((row, index) => (
        <div class="kv-row" key={index}>
          <TextInput
            value={row.key}
            mono
            ariaLabel={t("kv.key")}
            placeholder={props.keyPlaceholder ?? t("kv.key")}
            onChange={(key) => commit(rows.map((r, i) => (i === index ? { ...r, key } : r)))}
          />
          <TextInput
            value={row.value}
            mono
            ariaLabel={t("kv.value")}
            placeholder={props.valuePlaceholder ?? t("kv.value")}
            onChange={(value) => commit(rows.map((r, i) => (i === index ? { ...r, value } : r)))}
          />
          <IconButton
            title={t("common.remove")}
            onClick={() => commit(rows.filter((_, i) => i !== index))}
            icon="×"
          />
        </div>
      ))}
      <button
        type="button"
        class="link-button"
        onClick={() => setRows([...rows, { key: "", value: "", typed: false }])}
      >
        + {props.addLabel ?? t("kv.add")}
      </button>
    </div>
  );
}

export function IconButton(props: {
  icon: string;
  title: string;
  onClick: () => void;
  disabled?: boolean;
  testId?: string;
}): JSX.Element {
  return (
    <button
      type="button"
      class="icon-button"
      title={props.title}
      aria-label={props.title}
      disabled={props.disabled}
      data-testid={props.testId}
      onClick={(event) => {
        event.stopPropagation();
        props.onClick();
      }}
    >
      {props.icon}
    </button>
  );
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A dialog takes the focus when it opens (unless a field in it took it already) and gives it back
 * to where it was when it closes, so a keyboard user is neither left behind the backdrop nor
 * thrown back to the top of the page. Returns the clean-up for useEffect.
 */
function takeFocus(dialog: HTMLElement | null, before: HTMLElement | null): () => void {
  if (dialog && !dialog.contains(document.activeElement)) dialog.focus();
  return () => {
    if (before?.isConnected) before.focus();
  };
}

/** Tab from the dialog's last control goes to its first, Shift+Tab from the first to the last. */
function keepFocusInside(dialog: HTMLElement, event: KeyboardEvent): void {
  const controls = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (!first || !last) return;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || active === dialog)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}

export function Modal(props: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
  testId?: string;
}): JSX.Element {
  const t = useT();
  const dialog = useRef<HTMLDivElement>(null);
  // what had the focus before the dialog opened, read while rendering: a field in the dialog
  // may take the focus before this component's effects run
  const [opener] = useState(() => document.activeElement as HTMLElement | null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") props.onClose();
      if (event.key === "Tab" && dialog.current) keepFocusInside(dialog.current, event);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [props.onClose]);
  useEffect(() => takeFocus(dialog.current, opener), []);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click outside closes; Escape does the same from the keyboard
    // biome-ignore lint/a11y/noStaticElementInteractions: the backdrop is not a control
    <div class="modal-backdrop" onClick={props.onClose}>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: only stops clicks inside from closing the dialog */}
      <div
        ref={dialog}
        tabIndex={-1}
        class={`modal${props.wide ? " wide" : ""}`}
        role="dialog"
        aria-modal="true"
        aria-label={props.title}
        data-testid={props.testId}
        onClick={(event) => event.stopPropagation()}
      >
        <header class="modal-header">
          <h2>{props.title}</h2>
          <IconButton icon="×" title={t("common.close")} onClick={props.onClose} />
        </header>
        <div class="modal-body">{props.children}</div>
      </div>
    </div>
  );
}

export interface Toast {
  id: number;
  text: string;
  tone: "info" | "error";
  action?: { label: string; run: () => void } | undefined;
}

export function Toasts(props: { toasts: Toast[]; dismiss: (id: number) => void }): JSX.Element {
  const t = useT();
  return (
    <div class="toasts" aria-live="polite">
      {props.toasts.map((toast) => (
        <div key={toast.id} class={`toast ${toast.tone}`} data-testid="toast">
          <span>{toast.text}</span>
          {toast.action && (
            <button
              type="button"
              class="toast-action"
              onClick={() => {
                toast.action?.run();
                props.dismiss(toast.id);
              }}
            >
              {toast.action.label}
            </button>
          )}
          <IconButton
            icon="×"
            title={t("common.dismiss")}
            onClick={() => props.dismiss(toast.id)}
          />
        </div>
      ))}
    </div>
  );
}

/** A refusal's kind as the interface words it, by the error body's `code`. */
const REFUSAL_LEAD: Record<ErrorKind, MessageKey> = {
  invalid_request: "refusal.invalid_request",
  not_found: "refusal.not_found",
  not_initialized: "refusal.not_initialized",
  already_exists: "refusal.already_exists",
  internal: "refusal.internal",
  overloaded: "refusal.overloaded",
};

/**
 * What the service said, as it said it (its message is English for every client), led in
 * another language than English by the kind of refusal in that language, so a reader who does
 * not read English still knows what happened; `lang` tells screen readers which is which.
 */
export function ServiceMessage(props: {
  failure: { error: string; code?: ErrorKind | undefined; cause?: unknown };
  block?: boolean;
}): JSX.Element {
  const t = useT();
  const { failure } = props;
  const kind = refusalKind(failure);
  const lead = translatesCoreWords() && kind !== undefined ? REFUSAL_LEAD[kind] : undefined;
  return (
    <>
      {lead && (
        <span class="refusal-lead" data-testid="refusal-lead">
          {t(lead)}
        </span>
      )}
      {/* a service's message is English; the dashboard's own (no answer at all) is not */}
      {props.block ? (
        <pre lang={kind && "en"}>{failure.error}</pre>
      ) : (
        <span lang={kind && "en"}>{failure.error}</span>
      )}
    </>
  );
}

/**
 * The detail of a failure, under its message: what exactly was wrong and what to do, as the
 * service's JSON error body gives it (nothing when it gave none).
 */
export function ErrorDetail(props: { detail: string | undefined }): JSX.Element | null {
  if (!props.detail) return null;
  return (
    <pre class="error-detail" data-testid="error-detail" lang="en">
      {props.detail}
    </pre>
  );
}

export function download(fileName: string, data: BlobPart, type: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const anchor = document.createElement("a");
  anchor.href = url;
  anchor.download = fileName;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A message whose `backticked` parts show as <code> elements (built as elements, never HTML). */
export function InlineCode(props: { text: string }): JSX.Element {
  return (
    <>
      {inlineCodeParts(props.text).map((part, index) =>
        part.code ? <code key={index}>{part.text}</code> : part.text,
      )}
    </>
  );
}

/**
 * Ctrl+Enter (Cmd+Enter on a Mac) runs a form's primary action, from any field in it, text
 * areas included (where Enter alone is a new line): an onKeyDown for the form.
 */
export function submitOnModEnter(event: KeyboardEvent): void {
  if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
  const form = (event.currentTarget as HTMLElement).closest("form");
  if (!form) return;
  event.preventDefault();
  form.requestSubmit();
}

/**
 * Copies `text` to the clipboard; says "Copied" for a moment, or "Copy failed" where the browser
 * refuses (a page not served over https or localhost has no clipboard).
 */
export function CopyButton(props: { text: string; label: string; testId: string }): JSX.Element {
  const t = useT();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 1500);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => {
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (!clipboard) {
      setState("failed");
      return;
    }
    clipboard.writeText(props.text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return (
    <button
      type="button"
      class="button small copy-button"
      aria-label={props.label}
      title={props.label}
      data-testid={props.testId}
      onClick={copy}
    >
      {state === "copied"
        ? t("copy.copied")
        : state === "failed"
          ? t("copy.failed")
          : t("copy.copy")}
    </button>
  );
}
