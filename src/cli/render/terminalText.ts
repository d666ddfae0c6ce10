/** Text from outside made safe to print on a terminal (control characters shown as pictures): see protocol/visibleText.ts. */
export { visibleText as terminalText, visibleLine as terminalLine } from '../../protocol/visibleText';
