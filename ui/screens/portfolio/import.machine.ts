/**
 * The import wizard of the portfolio screen: a file is picked and read, the server previews each row's
 * verdict (nothing recorded), then the user commits every new row at once, or picks another file or format.
 */
import { assertEvent, assign, fromPromise, setup } from 'xstate';
import { portfolioApi } from '../../../domain/contract/portfolio.ts';
import type { ImportFormat } from '../../../domain/portfolio/importFormats.ts';
import type { AnswerOf } from '../../../domain/contract/route.ts';
import { call, errorMessage } from '../../services/api.ts';

/** The preview the server answers. */
export type ImportPreviewAnswer = AnswerOf<typeof portfolioApi.postPortfolioImportPreview>;

/** What a commit answers. */
export type ImportCommitAnswer = AnswerOf<typeof portfolioApi.postPortfolioImport>;

/** The format picked: one of the formats, or `auto` to tell it from the file. */
export type PickedFormat = ImportFormat | 'auto';

/** What the wizard holds. */
export interface ImportContext {
  readonly fileName: string | null;
  readonly csv: string | null;
  readonly format: PickedFormat;
  readonly preview: ImportPreviewAnswer | null;
  readonly result: ImportCommitAnswer | null;
  readonly error: string | null;
}

/** Events of the wizard. */
export type ImportEvent =
  | { type: 'user.pickFile'; fileName: string; csv: string }
  | { type: 'user.pickFormat'; format: PickedFormat }
  | { type: 'user.commit' }
  | { type: 'user.reset' };

/** What the preview and commit actors are given. */
export interface ImportInput {
  readonly csv: string;
  readonly format: PickedFormat;
}

/** What the wizard says of a file picked that holds nothing (or only blank lines). */
function emptyFileMessage(fileName: string): string {
  return `${fileName} is empty: pick the file your broker exported (CSV)`;
}

const initial: ImportContext = { fileName: null, csv: null, format: 'auto', preview: null, result: null, error: null };

/** The import wizard's machine. */
export const importMachine = setup({
  types: { context: {} as ImportContext, events: {} as ImportEvent },
  actors: {
    previewFile: fromPromise<ImportPreviewAnswer, ImportInput>(({ input }) =>
      call(portfolioApi.postPortfolioImportPreview, { body: input }),
    ),
    commitFile: fromPromise<ImportCommitAnswer, ImportInput>(({ input }) =>
      call(portfolioApi.postPortfolioImport, { body: input }),
    ),
  },
  guards: {
    committable: ({ context }) =>
      context.preview !== null && context.preview.counts.refused === 0 && context.preview.counts.new > 0,
    hasFile: ({ context }) => context.csv !== null,
    emptyFile: ({ event }) => {
      assertEvent(event, 'user.pickFile');
      return event.csv.trim() === '';
    },
  },
}).createMachine({
  id: 'import',
  initial: 'choosing',
  context: initial,
  on: {
    'user.pickFile': [
      {
        // Nothing to preview: said in the wizard's words, without asking the server (`body.csv: must not be empty`).
        guard: 'emptyFile',
        target: '.choosing',
        actions: assign(({ event }) => ({
          fileName: event.fileName,
          csv: null,
          preview: null,
          result: null,
          error: emptyFileMessage(event.fileName),
        })),
      },
      {
        target: '.previewing',
        actions: assign(({ event }) => ({
          fileName: event.fileName,
          csv: event.csv,
          preview: null,
          result: null,
          error: null,
        })),
      },
    ],
    'user.pickFormat': [
      { guard: 'hasFile', target: '.previewing', actions: assign({ format: ({ event }) => event.format }) },
      { actions: assign({ format: ({ event }) => event.format }) },
    ],
    'user.reset': { target: '.choosing', actions: assign(initial) },
  },
  states: {
    choosing: {},
    previewing: {
      invoke: {
        src: 'previewFile',
        input: ({ context }) => ({ csv: context.csv ?? '', format: context.format }),
        onDone: { target: 'reviewing', actions: assign({ preview: ({ event }) => event.output, error: null }) },
        onError: { target: 'choosing', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
    },
    reviewing: {
      on: { 'user.commit': { guard: 'committable', target: 'committing' } },
    },
    committing: {
      invoke: {
        src: 'commitFile',
        input: ({ context, event }) => {
          assertEvent(event, 'user.commit');
          return { csv: context.csv ?? '', format: context.format };
        },
        onDone: { target: 'done', actions: assign({ result: ({ event }) => event.output, error: null }) },
        onError: { target: 'reviewing', actions: assign({ error: ({ event }) => errorMessage(event.error) }) },
      },
    },
    done: {},
  },
});
