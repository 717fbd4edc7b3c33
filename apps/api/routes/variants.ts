import { Router } from 'express';
import { getCampaign } from '../../../db/queries/campaigns';
import { variantResults } from '../../../db/queries/variants';
import { visibleOr404 } from '../access';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './variants.schemas';
import { pathId } from '../validate';

/** Step variants: the results per variant of a campaign's steps; another tenant's campaign is 404. */
export function variantRoutes({ db }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  serve('campaignVariants', async (req, res) => {
    const id = pathId(req, 'campaignId', 'campaign');
    res.json(await visibleOr404(db, req, 'campaign', async (tx) => ((await getCampaign(tx, id)) ? variantResults(tx, id) : undefined)));
  });

  return r;
}
