// Every differential case, by API family.
import type { Case } from './case.js';
import { ADMIN_CASES } from './cases-admin.js';
import { GROUP_CASES } from './cases-groups.js';
import { LOG_CASES } from './cases-log.js';
import { TOPIC_CASES } from './cases-topics.js';
import { TXN_CASES } from './cases-txn.js';

export const CASES: Case[] = [...TOPIC_CASES, ...LOG_CASES, ...GROUP_CASES, ...TXN_CASES, ...ADMIN_CASES];
