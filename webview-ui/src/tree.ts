/**
 * Keyboard behaviour of the view's trees (WAI-ARIA tree pattern): one tab
 * stop per tree (roving tabindex); Up/Down/Home/End move between visible
 * items; Right expands or enters, Left collapses or goes to the parent;
 * Enter and Space activate the item; Delete stops it (an agent at work);
 * the context-menu key or Shift+F10 opens its menu (the browser sends the
 * menu event, the webview host shows VS Code's menu). A focused item's
 * buttons join the tab order, so every action is reachable without a mouse.
 */

type Toggle = (item: HTMLElement, expanded: boolean) => void;

/** Items not inside a folded item (read from the tree's state, not from layout: no reflow per key). */
function visibleItems(tree: Element): HTMLElement[] {
  return [...tree.querySelectorAll<HTMLElement>('li[role="treeitem"]')].filter((item) => !item.parentElement?.closest('li[aria-expanded="false"]'));
}

function itemOf(target: EventTarget | null): HTMLElement | null {
  return target instanceof Element ? target.closest<HTMLElement>('li[role="treeitem"]') : null;
}

/** The buttons and links of an item's own row, not of the items nested in it (approval answers are always in the tab order). */
function rowButtons(item: HTMLElement): HTMLElement[] {
  return [...item.querySelectorAll<HTMLElement>(':scope > .row :is(button, a[href])')].filter((b) => !b.closest('.approval'));
}

/** Makes `item` the tree's one tab stop. */
function setTabStop(tree: Element, item: HTMLElement): void {
  for (const other of tree.querySelectorAll<HTMLElement>('li[role="treeitem"][tabindex="0"]')) if (other !== item) other.tabIndex = -1;
  item.tabIndex = 0;
}

/** Focuses `item` and selects it (selection follows focus, as in VS Code's trees). */
export function focusItem(tree: Element, item: HTMLElement): void {
  setTabStop(tree, item);
  for (const old of tree.querySelectorAll('li.selected')) if (old !== item) old.classList.remove('selected');
  item.classList.add('selected');
  item.focus();
}

/**
 * Where Tab (or focusing the view) enters the tree: the selected item when
 * it is in view, else the first. Left alone while focus is inside the tree.
 * Called after the tree changed (runs come and go, the newest on top).
 */
export function resetTabStop(tree: Element): HTMLElement | null {
  if (tree.contains(tree.ownerDocument.activeElement)) return tree.querySelector<HTMLElement>('li[role="treeitem"][tabindex="0"]');
  const items = visibleItems(tree);
  const target = items.find((item) => item.classList.contains('selected')) ?? items[0];
  if (target) setTabStop(tree, target);
  return target ?? null;
}

/**
 * Focusing the view as a whole (VS Code's "Focus on … View" command, or a
 * click on its header) puts focus on the page, not on an element: hand it
 * to the tree's entry item, so the arrow keys work at once.
 */
export function installViewFocus(tree: Element): () => void {
  const doc = tree.ownerDocument;
  const win = doc.defaultView!;
  // A click into the view focuses it too: then the click decides what gets focus, and nothing may scroll under the pointer.
  let pointer = false;
  const down = () => (pointer = true);
  const up = () => setTimeout(() => (pointer = false), 0);
  const onFocus = () => {
    const active = doc.activeElement;
    if (pointer || (active && active !== doc.body)) return;
    resetTabStop(tree)?.focus();
  };
  doc.addEventListener('pointerdown', down, true);
  doc.addEventListener('pointerup', up, true);
  win.addEventListener('focus', onFocus);
  return () => {
    doc.removeEventListener('pointerdown', down, true);
    doc.removeEventListener('pointerup', up, true);
    win.removeEventListener('focus', onFocus);
  };
}

export function setExpanded(item: HTMLElement, expanded: boolean, onToggle: Toggle): void {
  if (!item.hasAttribute('aria-expanded')) return;
  item.setAttribute('aria-expanded', String(expanded));
  onToggle(item, expanded);
}

export function installTreeKeyboard(root: HTMLElement, onToggle: Toggle): void {
  root.addEventListener('keydown', (e) => {
    const item = itemOf(e.target);
    const tree = item?.closest('[role="tree"]');
    if (!item || !tree || e.target !== item) return;
    const items = visibleItems(tree);
    const index = items.indexOf(item);
    const move = (to: HTMLElement | undefined) => to && focusItem(tree, to);
    const expanded = item.getAttribute('aria-expanded');
    switch (e.key) {
      case 'ArrowDown':
        move(items[index + 1]);
        break;
      case 'ArrowUp':
        move(items[index - 1]);
        break;
      case 'Home':
        move(items[0]);
        break;
      case 'End':
        move(items.at(-1));
        break;
      case 'ArrowRight':
        if (expanded === 'false') setExpanded(item, true, onToggle);
        else if (expanded === 'true') move(items[index + 1]);
        break;
      case 'ArrowLeft':
        if (expanded === 'true') setExpanded(item, false, onToggle);
        else move(itemOf(item.parentElement) ?? undefined);
        break;
      case 'Enter':
      case ' ':
        item.dispatchEvent(new CustomEvent('activate', { bubbles: true }));
        break;
      case 'Delete':
        item.dispatchEvent(new CustomEvent('stop', { bubbles: true }));
        break;
      default:
        return;
    }
    e.preventDefault();
  });
  root.addEventListener('focusin', (e) => {
    const item = itemOf(e.target);
    if (!item) return;
    const tree = item.closest('[role="tree"]');
    if (tree && e.target === item) for (const other of tree.querySelectorAll<HTMLElement>('li[role="treeitem"][tabindex="0"]')) if (other !== item) other.tabIndex = -1;
    item.tabIndex = 0;
    item.classList.add('has-focus');
    for (const button of rowButtons(item)) button.tabIndex = 0;
    if (tree && e.target === item) for (const old of tree.querySelectorAll('li.selected')) if (old !== item) old.classList.remove('selected');
    if (e.target === item) item.classList.add('selected');
  });
  root.addEventListener('focusout', (e) => {
    const item = itemOf(e.target);
    const next = itemOf(e.relatedTarget);
    if (!item || next === item) return;
    item.classList.remove('has-focus');
    for (const button of rowButtons(item)) button.tabIndex = -1;
  });
  // A click on a row focuses its item, so the keyboard continues from there.
  root.addEventListener('click', (e) => {
    const item = itemOf(e.target);
    const tree = item?.closest('[role="tree"]');
    if (item && tree && !(e.target instanceof HTMLButtonElement)) focusItem(tree, item);
  });
}
