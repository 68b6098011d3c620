// Lets another dashboard panel (My Stuff's 'Analyze with AI') hand a file to the chat's
// input bar, where it shows as the attachment chip like a file the trader picked.
import { createContext, useContext } from 'react';

export type AttachToChat = (file: File) => void;

export const ChatAttachmentContext = createContext<AttachToChat | null>(null);

/** The chat's attach function, or null outside the dashboard (or before the chat is mounted). */
export function useAttachToChat(): AttachToChat | null {
  return useContext(ChatAttachmentContext);
}
