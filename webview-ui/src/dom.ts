/** Tiny DOM helpers: the view is plain DOM, no framework, to keep the bundle small. */

export interface ElProps {
  className?: string;
  text?: string;
  title?: string;
  testId?: string;
  role?: string;
  key?: string;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: ElProps = {}, children: Array<Node | null | false> = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  if (props.title) node.title = props.title;
  if (props.testId) node.dataset.testid = props.testId;
  if (props.role) node.setAttribute('role', props.role);
  if (props.key) node.dataset.key = props.key;
  for (const child of children) if (child) node.append(child);
  return node;
}

export function codicon(name: string, extra = ''): HTMLElement {
  const icon = el('span', { className: `codicon codicon-${name}${extra ? ` ${extra}` : ''}` });
  icon.setAttribute('aria-hidden', 'true');
  return icon;
}

/** An icon button for a row; reachable by Tab only while its row has focus (see tree.ts). */
export function iconButton(icon: string, label: string, testId: string, onClick: () => void): HTMLButtonElement {
  const button = el('button', { className: 'icon-button', title: label, testId }, [codicon(icon)]);
  button.type = 'button';
  button.tabIndex = -1;
  button.setAttribute('aria-label', label);
  button.addEventListener('click', (e) => {
    e.stopPropagation();
    onClick();
  });
  // Enter/Space on the button must not also trigger the row's primary action.
  button.addEventListener('keydown', (e) => e.stopPropagation());
  return button;
}

/** A button with a label, always in the tab order (notices, approvals, empty states). */
export function textButton(label: string, testId: string, onClick: () => void, className = 'text-button'): HTMLButtonElement {
  const button = el('button', { className, text: label, testId });
  button.type = 'button';
  button.addEventListener('click', (e) => {
    e.stopPropagation();
    onClick();
  });
  button.addEventListener('keydown', (e) => e.stopPropagation());
  return button;
}
