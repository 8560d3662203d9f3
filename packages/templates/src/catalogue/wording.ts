// Sentences several templates share. Checked by SpamAssassin in the quality suite
// (packages/server/quality/spam.test.ts): "your … account … security" (TVD_PH_SEC), "verify your
// identity", "account … updated" and their like read as phishing, so none appears here.

/** For a change the reader may not have made. Names no address: a project may have no support email. */
export const NOT_YOU = 'If this was not you, set a new password now and contact {{projectName}} support.';
